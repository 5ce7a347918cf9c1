package main

import "github.com/ringside-eval/ringside"

// notBuilt answers a command whose issue has not landed yet.
func notBuilt(name string) error {
	return ringside.Errorf(ringside.EINVALID, "%s is not built yet", name)
}
