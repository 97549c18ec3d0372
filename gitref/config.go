package gitref

import (
	"fmt"
	"strings"
)

func splitConfigKey(key string) (section, sub, name string, err error) {
	first := strings.Index(key, ".")
	last := strings.LastIndex(key, ".")
	if first <= 0 || last == len(key)-1 {
		return "", "", "", fmt.Errorf("config key %q: want section.name or section.subsection.name", key)
	}
	section, name = key[:first], key[last+1:]
	if first != last {
		sub = key[first+1 : last]
	}
	return section, sub, name, nil
}
