//go:build !linux

package main

// exchange swaps the directories a and b (renameDirs: this system has no atomic exchange).
func exchange(a, b string) error { return renameDirs(a, b) }
