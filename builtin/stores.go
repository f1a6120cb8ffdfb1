// Package builtin links the implementations farebox ships with into the
// program that imports it (the composition root and the tests that build
// a whole gateway): each file registers one kind, one import a line.
package builtin

// The storage technologies beside memory, which package store always has.
import (
	_ "github.com/farebox/farebox/store/bolt"  // store: bolt:DIR (and data_dir)
	_ "github.com/farebox/farebox/store/redis" // store: redis://... (and payments.redis_url)
)
