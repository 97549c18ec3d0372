package greet

import "strings"

// Shouter says things loudly.
type Shouter interface {
	Shout(name string) string
}

// Greeter greets people.
type Greeter struct {
	Greeting string
}

// Say greets name.
func (g Greeter) Say(name string) string { return g.Greeting + ", " + name }

// Shout greets name loudly.
func (g Greeter) Shout(name string) string { return strings.ToUpper(g.Say(name)) }
