package noteline

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		note string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb", []string{"a\r", "b"}},
		{"a\n\nb\n", []string{"a", "", "b"}},
		{"\n", []string{""}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range Split([]byte(tt.note)) {
			got = append(got, string(l))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.note, got, tt.want)
		}
	}
}
