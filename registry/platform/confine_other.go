//go:build !linux

package platform

import "errors"

// landlockABI reports that there is no Landlock: it is Linux's.
func landlockABI() int { return 0 }

func confineAndExec(policy, string, string, []string) error {
	return errors.New("platform: confine: Landlock is Linux's")
}

func reap([]string) error {
	return errors.New("platform: reap: child subreapers are Linux's")
}

// mountNS reports that there are no mount namespaces: they are Linux's.
func mountNS() (uint64, error) { return 0, errors.New("mount namespaces are Linux's") }
