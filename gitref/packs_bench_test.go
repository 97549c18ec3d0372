package gitref

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkLargeBlobs reads 20 packed blobs of 64 KiB each (over go-git's
// 16 KiB threshold, above which it reopens the pack for every object read:
// packfile.FSObject), the object cache emptied before each op, through the pread
// window (the reading verify and ticks use). B/op shows what each reopening
// costs: with shared pack files and pooled windows, no 64 KiB window per object.
func BenchmarkLargeBlobs(b *testing.B) {
	dir := newRepo(b)
	big := strings.Repeat("0123456789abcdef\n", 3855) // 64 KiB
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("f%02d", i)] = fmt.Sprint(i) + big
	}
	commit := commitFiles(b, dir, "big", files)
	gitOut(b, dir, "repack", "-adq")
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.store.SetPackMapping(false)
	b.ReportAllocs()
	for b.Loop() {
		r.store.SetCacheSize(1 << 20)
		for name := range files {
			if _, err := r.File(commit, name); err != nil {
				b.Fatal(err)
			}
		}
	}
}
