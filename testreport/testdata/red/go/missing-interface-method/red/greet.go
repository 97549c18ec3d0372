package greet

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
