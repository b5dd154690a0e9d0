package platform

import (
	"strings"

	"github.com/toolhint/toolhint/schema"
)

// syntaxCheck refuses what an allowed program would read in its arguments as "run this"
// or "open that file": git's command-running config keys and transports, tar's
// commands, sed's e and file commands, make's --eval, curl's file: URLs. The kernel's
// confinement stops these too; the check makes the refusal early and clear.
func syntaxCheck(base string, args []string) error {
	switch strings.ToLower(base) {
	case "git":
		return gitCheck(args)
	case "tar":
		for _, a := range args {
			la := strings.ToLower(a)
			for _, p := range []string{"--checkpoint-action", "--to-command", "--use-compress-program",
				"--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"} {
				if strings.HasPrefix(la, p) {
					return refuse("tar's %s runs a command", p)
				}
			}
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "IF") {
				return refuse("tar's -I and -F run a command")
			}
		}
	case "sed":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "-e") && !strings.HasPrefix(a, "--expression") {
				continue
			}
			if err := sedCheck(a); err != nil {
				return err
			}
		}
	case "make", "gmake":
		for _, a := range args {
			la := strings.ToLower(a)
			if strings.HasPrefix(la, "--eval") || strings.HasPrefix(a, "-E") {
				return refuse("make's --eval runs what it is given")
			}
		}
	case "curl", "wget":
		for _, a := range args {
			la := strings.ToLower(a)
			if strings.Contains(la, "file:") {
				return refuse("file: URLs read local files; use read_file")
			}
			if la == "-k" || la == "--config" || strings.HasPrefix(la, "--config=") || la == "-K" {
				return refuse("%s's config files are refused", base)
			}
		}
	}
	return nil
}

// gitCheck refuses git's config keys and transports that run commands.
func gitCheck(args []string) error {
	for i, a := range args {
		la := strings.ToLower(a)
		switch {
		case strings.Contains(la, "ext::") || strings.Contains(la, "fd::"):
			return refuse("git's ext:: and fd:: transports run commands")
		case strings.HasPrefix(la, "--upload-pack") || strings.HasPrefix(la, "--receive-pack") ||
			strings.HasPrefix(la, "--exec") || strings.HasPrefix(la, "--config-env") || strings.HasPrefix(la, "--template"):
			return refuse("git's %s runs or installs commands", schema.Excerpt(strings.SplitN(la, "=", 2)[0]))
		case la == "-c" && i+1 < len(args):
			if err := gitKey(args[i+1]); err != nil {
				return err
			}
		case strings.HasPrefix(la, "-c") && len(la) > 2 && !strings.HasPrefix(la, "--"):
			if err := gitKey(a[2:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitKey allows a git -c setting only when its key is one that cannot run anything.
func gitKey(kv string) error {
	key, _, _ := strings.Cut(strings.ToLower(kv), "=")
	for _, p := range []string{"user.", "color.", "advice.", "init.defaultbranch", "core.quotepath",
		"core.autocrlf", "log.", "format.pretty", "pull.rebase", "commit.gpgsign", "tag.gpgsign"} {
		if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
			return nil
		}
	}
	return refuse("git -c %s: only user.*, color.*, advice.*, log.* and a few display settings may be set", schema.Excerpt(key))
}

// sedCheck refuses sed scripts with the e command or flag (they run a shell) and file
// commands (r, R, w, W) or flags naming an absolute or climbing path.
func sedCheck(script string) error {
	for _, cmd := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		c := strings.TrimLeft(cmd, " \t0123456789$,~!+^")
		if strings.HasPrefix(c, "/") { // an address /re/
			if end := strings.Index(c[1:], "/"); end >= 0 {
				c = strings.TrimLeft(c[end+2:], " \t0123456789$,~!+")
			}
		}
		if c == "e" || strings.HasPrefix(c, "e ") || strings.HasPrefix(c, "e\t") {
			return refuse("sed's e command runs a shell")
		}
		if len(c) > 1 && c[0] == 's' {
			flags := sedFlags(c)
			if i := strings.IndexAny(flags, "wW"); i >= 0 {
				if err := scriptPath(flags[i:]); err != nil {
					return err
				}
				flags = flags[:i]
			}
			if strings.Contains(flags, "e") {
				return refuse("sed's e flag runs a shell")
			}
			continue
		}
		if c != "" && strings.ContainsRune("rRwW", rune(c[0])) {
			if err := scriptPath(c[1:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// sedFlags returns what follows the third delimiter of the s command c ("s/a/b/gw f"
// gives "gw f").
func sedFlags(c string) string {
	d, seen := c[1], 0
	for i := 2; i < len(c); i++ {
		switch c[i] {
		case '\\':
			i++
		case d:
			if seen++; seen == 2 {
				return c[i+1:]
			}
		}
	}
	return ""
}

// scriptPath refuses a file name inside a program's script that is absolute, starts with
// "~" or climbs with "..".
func scriptPath(s string) error {
	f := strings.TrimSpace(strings.TrimLeft(s, "gpiImM0123456789"))
	f = strings.TrimLeft(f, "wWrR")
	f = strings.TrimSpace(f)
	if f == "" {
		return nil
	}
	if outsidePath(f) {
		return refuse("the script names the file %q outside the workspace directory", schema.Excerpt(f))
	}
	return nil
}

// outsidePath reports whether v names an absolute path, a home directory or climbs
// with "..".
func outsidePath(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return true
	}
	for _, part := range strings.Split(v, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// networkSchemes are URL schemes whose part after "://" names a host, not a local path.
func networkScheme(scheme string) bool {
	switch strings.ToLower(scheme) {
	case "http", "https", "ftp", "ftps", "sftp", "scp", "ssh", "git", "rsync", "ws", "wss", "s3", "gs":
		return true
	}
	return false
}
