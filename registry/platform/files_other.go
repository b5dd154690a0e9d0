//go:build !unix

package platform

// openNonblock is zero where FIFOs cannot block an open.
const openNonblock = 0
