use greet::*;

#[test]
fn polite_greets_politely() {
    assert_eq!(polite("Ada"), "hello, Ada");
}
