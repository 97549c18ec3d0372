// Package objstore is the object store behind gitref's Repo: it reads a
// repository's objects — packed, loose or in alternates — through go-git,
// for many goroutines at once, and writes the objects the notes store makes.
//
// go-git's storages and pack readers are not safe for concurrent use, so a
// [Store] keeps a pool of them (handles), each borrowed by one goroutine for
// one read, sharing one object cache and one in-place index per pack. Pack
// readers are never shared between handles, and nothing a read returns reads
// through one: objects leave a read held whole in memory. Packs are read
// before loose objects, as git does; a blob read with a size limit is refused
// from its pack entry or loose header before it is inflated; a pack that git
// adds or removes while the Store is open is found by listing objects/pack
// again.
package objstore
