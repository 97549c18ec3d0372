//! Greets people.

/// Greets people with a greeting.
pub struct Greeter {
    pub greeting: String,
}

impl Greeter {
    /// Greets name.
    pub fn say(&self, name: &str) -> String {
        format!("{}, {}", self.greeting, name)
    }

    /// Greets name loudly.
    pub fn shout(&self, name: &str) -> String {
        self.say(name).to_uppercase()
    }
}

/// Greets name.
pub fn hello(name: &str) -> String {
    format!("hi, {name}")
}
