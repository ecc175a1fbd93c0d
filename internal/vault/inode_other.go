//go:build !unix

package vault

import "os"

// inode is 0 where the platform has no inode numbers.
func inode(os.FileInfo) uint64 { return 0 }
