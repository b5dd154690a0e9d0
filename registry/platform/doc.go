// Package platform provides safe built-in platform tools for package registry: file
// operations confined to one root directory, a command runner with an allow-list of
// programs, and an HTTP client that refuses loopback, private, link-local and metadata
// addresses. Each tool is a registry.ToolSpec; none is registered anywhere by default, so
// a host offers exactly the ones it chooses:
//
//	files, err := platform.NewFiles(platform.FilesConfig{Root: "/srv/agent-7"})
//	...
//	defer files.Close()
//	for _, spec := range files.Tools() {
//		if spec.Name != platform.ToolDeleteFile { // this host keeps deletion for itself
//			reg.MustRegister(spec)
//		}
//	}
//
// The checks do not rely on reading strings right:
//
//   - Files open every path through an os.Root, which resolves each component with
//     openat-style calls relative to the root directory, so neither "..", an absolute path,
//     nor a symlink (even one created while the call runs) can reach a file outside it.
//     Paths are also refused up front when they are absolute or contain a ".." component,
//     and files are opened without blocking and checked with fstat, so a FIFO or a device
//     is refused rather than read, and so is a file with more than one hard link (its other
//     name may be outside the root, where os.Root cannot see it).
//   - Commands run from an argv, never through a shell: "; rm -rf /" and "$(…)" are plain
//     arguments. Only programs the host listed by absolute path run; shells, interpreters
//     and launchers (sh, bash, env, xargs, sudo, python, …) are refused when listed unless
//     the host insists. Arguments that match a blocked pattern, or that name a path outside
//     the working directory, are refused. That check is a first line only: the kernel is
//     the boundary. Each command runs in a child confined with Landlock before it executes
//     the program: read and write below the workspace directory, read below a few system
//     directories (DefaultReadPaths), execute only the allowed programs and their dynamic
//     loader, granted file by file (so git's "!" aliases, tar's checkpoint actions, sed's
//     e command or make's $(shell) cannot start a shell), and no TCP where the kernel has
//     Landlock's network rules (Linux 6.7). The child is the host's own binary started
//     again: the host calls Main first in main, as with moby's reexec, and NewCommand
//     proves the confinement once with a probe run. Where Landlock is missing NewCommand
//     fails unless the host sets CommandConfig.Unconfined, and the tool's description
//     tells the model which it got. Landlock's execute right governs execve only, and the
//     loader it must let run maps any file it can read as code: so a confined command
//     also runs in a mount namespace of its own, in which the child, before Landlock,
//     makes every mount private (nothing it mounts reaches the host's mount table),
//     bind-mounts the workspace onto itself and remounts it noexec, nosuid and nodev. The
//     kernel then refuses to execute a file in the workspace or to map one as code, and
//     the workspace is the one place (with /dev/null and the like) a command may write,
//     so no program the model writes can run, not even as "ld-linux.so ./payload" from a
//     make recipe. The host creates the namespace with CAP_SYS_ADMIN, or else in a user
//     namespace mapping its uid and gid to themselves; where it can create none,
//     NewCommand fails unless the host sets CommandConfig.WorkspaceExec, and the
//     description says which it got. Each command runs in a session of its own and, where
//     the host may create one (the same ways), a PID namespace of its own, whose every
//     process the kernel kills when the program ends; the session is killed at the
//     timeout. Without a PID namespace, a command runs below a child subreaper (one more
//     child of the host's binary, itself unconfined): what the program leaves behind,
//     even a daemon that left the session with setsid, is reparented to it, and it kills
//     all of it when the program ends or at the timeout, then ends as the program did
//     (exit code or signal). The environment is the host's list only
//     (never the host process's own), and output is bounded.
//   - HTTP requests are checked twice: the URL (scheme, host, port, method) before the
//     request, and every IP address when a connection is dialled, after name resolution, so
//     DNS rebinding and redirects cannot reach an address the policy refuses. Proxies from
//     the environment are never used. Secret headers the host configures are added per host
//     at the last moment and never appear in results, errors or logs.
//
// A host that offers execute_command starts its main with Main:
//
//	func main() {
//		platform.Main() // in a confining child: confines, executes the program, never returns
//		...
//	}
//
// Landlock does not confine UDP, and an allowed program keeps the host's user; list
// programs as if the model could run them with any arguments inside the workspace. A
// command may read, and so have the loader map as code, whatever ReadPaths names: list
// nothing there that the model can write by another way (the files tools with another
// root, say). Before Landlock scopes signals (Linux 6.12), a confined program may kill
// the subreaper, and what it started outside its session then outlives it; and an
// unconfined command has a subreaper only where the host called Main (on Linux).
package platform
