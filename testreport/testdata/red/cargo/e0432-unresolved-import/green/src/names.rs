/// Whom to greet when no one is named.
pub fn default_name() -> String {
    "world".to_string()
}
