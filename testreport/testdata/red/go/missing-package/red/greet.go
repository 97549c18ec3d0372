package greet

// Greeter greets people.
type Greeter struct {
	Greeting string
}

// Say greets name.
func (g Greeter) Say(name string) string { return g.Greeting + ", " + name }

// Hello greets name.
func Hello(name string) string { return "hi, " + name }
