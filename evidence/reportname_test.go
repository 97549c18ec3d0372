package evidence

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReportName(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"reports/green.json", "reports/green.json"},
		{"./reports/../green.json", "green.json"},
		{filepath.Join(wd, "out", "red.xml"), "out/red.xml"},
		{filepath.Join(filepath.Dir(wd), "elsewhere", "red.xml"), "red.xml"},
		{filepath.Join(wd, "..", filepath.Base(wd)+"x", "red.xml"), "red.xml"},
	} {
		if got := ReportName(tc.in); got != tc.want {
			t.Errorf("ReportName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
