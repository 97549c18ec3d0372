// Package repocache lets a command free a repository's read caches between
// the stages of its work (the merge gate, once a range's objects are read)
// without cache tuning being part of gitref's API: gitref registers how.
package repocache

var drop func(repo any)

// Register sets how Drop empties a repository's caches; gitref calls it.
func Register(f func(repo any)) { drop = f }

// Drop empties the object and decoded-commit caches of repo, a *gitref.Repo,
// keeping their bounds: reads after it are correct, only read again.
func Drop(repo any) {
	if drop != nil {
		drop(repo)
	}
}
