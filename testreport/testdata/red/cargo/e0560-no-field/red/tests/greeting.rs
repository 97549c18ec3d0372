use greet::Greeter;

#[test]
fn a_greeter_has_punctuation() {
    let g = Greeter { greeting: "hello".to_string(), punct: "!".to_string() };
    assert_eq!(g.say("Ada"), "hello, Ada!");
}
