//go:build !unix

package platform

import "os/exec"

// killGroup keeps exec's default: cancellation kills the program itself.
func killGroup(*exec.Cmd) {}
