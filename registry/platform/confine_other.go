//go:build !linux

package platform

import "errors"

// landlockABI reports that there is no Landlock: it is Linux's.
func landlockABI() int { return 0 }

func confineAndExec(policy, string, []string) error {
	return errors.New("platform: confine: Landlock is Linux's")
}

func reap([]string) error {
	return errors.New("platform: reap: child subreapers are Linux's")
}
