// Package names names whom to greet.
package names

// Default is whom to greet when no one is named.
func Default() string { return "world" }
