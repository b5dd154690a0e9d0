package platform

// NoPIDNamespace makes c start its commands without a PID namespace of their own, as on a
// host without CAP_SYS_ADMIN, so that tests reach that path on any machine.
func NoPIDNamespace(c *Command) { c.noPIDNS.Store(true) }
