package greet

import "strings"

// Greeter greets people.
type Greeter struct {
	Greeting string
}

// Say greets name.
func (g Greeter) Say(name string) string { return g.Greeting + ", " + name }

// Hello greets name.
func Hello(name string) string { return "hi, " + name }

// Shout greets name loudly.
func (g Greeter) Shout(name string) string { return strings.ToUpper(g.Say(name)) }
