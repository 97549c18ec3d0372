package greet

// Greeter greets people.
type Greeter struct {
	Greeting string
	Punct    string
}

// Say greets name.
func (g Greeter) Say(name string) string { return g.Greeting + ", " + name + g.Punct }

// Hello greets name.
func Hello(name string) string { return "hi, " + name }
