package specfmt

import (
	"errors"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// yamlKeyPaths are the key paths ToolTasksFile reads.
var yamlKeyPaths = [][]string{{"schema"}, {"apply", "tracks"}, {"output_folder"}, {"implementation_artifacts"}}

func TestYAMLScalar(t *testing.T) {
	cases := []struct {
		doc   string
		keys  []string
		want  string
		found bool
		bad   bool
	}{
		{"schema: team\n", []string{"schema"}, "team", true, false},
		{"# c\n---\nschema: \"team\" # ours\n", []string{"schema"}, "team", true, false},
		{"schema: 'it''s'\n", []string{"schema"}, "it's", true, false},
		{"schema:\n", []string{"schema"}, "", false, false},
		{"schema: ~\n", []string{"schema"}, "", false, false},
		{"other: x\n", []string{"schema"}, "", false, false},
		{"apply:\n  requires: [todo]\n  tracks: todo.md\n", []string{"apply", "tracks"}, "todo.md", true, false},
		{"apply:\n  instruction: |\n    tracks: no\n  tracks: tasks.md\n", []string{"apply", "tracks"}, "tasks.md", true, false},
		{"artifacts:\n  - id: x\n    apply:\n      tracks: no\n    description: >\n      apply:\n        tracks: no\n", []string{"apply", "tracks"}, "", false, false},
		{"other:\n  apply:\n    tracks: no\n", []string{"apply", "tracks"}, "", false, false},
		{"description: a\n  long text\nschema: x\n", []string{"schema"}, "x", true, false},
		// Refused: the answer could differ from what YAML reads.
		{"apply: {tracks: todo.md}\n", []string{"apply", "tracks"}, "", false, true},
		{"apply: *a\n", []string{"apply", "tracks"}, "", false, true},
		{"apply:\n  <<: *a\n", []string{"apply", "tracks"}, "", false, true},
		{"schema: a\nschema: b\n", []string{"schema"}, "", false, true},
		{"schema: a\n  b\n", []string{"schema"}, "", false, true},
		{"schema: |\n  a\n", []string{"schema"}, "", false, true},
		{"schema: \"a\\u0062\"\n", []string{"schema"}, "", false, true},
		{"schema: !!str a\n", []string{"schema"}, "", false, true},
		{"schema: a\n---\nschema: b\n", []string{"schema"}, "", false, true},
		{"\tschema: a\n", []string{"schema"}, "", false, true},
		{"{schema: a}\n", []string{"schema"}, "", false, true},
		{"? schema\n: a\n", []string{"schema"}, "", false, true},
		{strings.Repeat("#", MaxToolConfig+1), []string{"schema"}, "", false, true},
	}
	for _, c := range cases {
		got, found, err := yamlScalar([]byte(c.doc), c.keys...)
		if c.bad {
			if !errors.Is(err, ErrYAMLSubset) {
				t.Errorf("%q %v: got %q %v %v, want ErrYAMLSubset", c.doc, c.keys, got, found, err)
			}
			continue
		}
		if err != nil || got != c.want || found != c.found {
			t.Errorf("%q %v: got %q %v %v, want %q %v", c.doc, c.keys, got, found, err, c.want, c.found)
		}
	}
}

// FuzzYAMLScalar holds yamlScalar to a YAML library: where both read a
// document, they read the same value at each key path (or both none).
func FuzzYAMLScalar(f *testing.F) {
	for _, s := range []string{
		"schema: team\n", "apply:\n  tracks: todo.md\n", "apply:\n  x: |\n    tracks: a\n  tracks: 'b' # c\n",
		"artifacts:\n  - id: t\n    generates: t.md\napply:\n  requires: [t]\n  tracks: t.md\n",
		"output_folder: \"{project-root}/out\"\nimplementation_artifacts: \"{output_folder}/impl\"\n",
		"--- \nschema: a # b\n", "a:\n- b: c\n  apply:\n   tracks: d\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var root yaml.Node
		libErr := yaml.Unmarshal(doc, &root)
		for _, keys := range yamlKeyPaths {
			got, found, err := yamlScalar(doc, keys...)
			if err != nil {
				if !errors.Is(err, ErrYAMLSubset) {
					t.Fatalf("%v: error %v is not ErrYAMLSubset", keys, err)
				}
				continue
			}
			if libErr != nil {
				continue // not YAML: the tool cannot read it either
			}
			want, wantFound, ok := yamlNodeAt(&root, keys)
			if !ok {
				continue // the library reads a node taskproof's subset does not name (flow, alias)
			}
			if got != want || found != wantFound {
				t.Fatalf("%q %v: yamlScalar %q %v, YAML %q %v", doc, keys, got, found, want, wantFound)
			}
		}
	})
}

// yamlNodeAt is the scalar at keys in a parsed document; ok is false when the
// path runs through a node that is not a block mapping or the value is not a
// plain or quoted scalar in block context.
func yamlNodeAt(root *yaml.Node, keys []string) (value string, found, ok bool) {
	n := root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return "", false, true
		}
		n = n.Content[0]
	}
	for i, k := range keys {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return "", false, true
		}
		if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle != 0 {
			return "", false, i > 0 && n.Kind == yaml.ScalarNode
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				next = n.Content[j+1]
			}
		}
		if next == nil {
			return "", false, true
		}
		n = next
	}
	if n.Kind != yaml.ScalarNode {
		return "", false, false
	}
	if n.Tag == "!!null" {
		return "", false, true
	}
	return n.Value, true, true
}
