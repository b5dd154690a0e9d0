package platform

// NoPIDNamespace makes c start its commands without a PID namespace of their own, as on a
// host without CAP_SYS_ADMIN, so that tests reach that path on any machine.
func NoPIDNamespace(c *Command) { c.skipModes(nsPID, false) }

// UserNamespace makes c start its commands in a user namespace of their own, as on a host
// without CAP_SYS_ADMIN that lets anyone create user namespaces.
func UserNamespace(c *Command) { c.skipModes(nsUser, true) }

// NewCommandWithoutNamespaces is NewCommand on a host that may create no namespace at
// all, so that tests reach the paths of such a host on any machine.
func NewCommandWithoutNamespaces(cfg CommandConfig) (*Command, error) {
	return newCommand(cfg, true)
}

// Interpreter is the ELF interpreter (dynamic loader) a program names, "" for a static one.
var Interpreter = interpreter
