//! Greets people.

/// Greets people with a greeting.
pub struct Greeter {
    pub greeting: String,
    pub punct: String,
}

impl Greeter {
    /// Greets name.
    pub fn say(&self, name: &str) -> String {
        format!("{}, {}{}", self.greeting, name, self.punct)
    }
}

/// Greets name.
pub fn hello(name: &str) -> String {
    format!("hi, {name}")
}
