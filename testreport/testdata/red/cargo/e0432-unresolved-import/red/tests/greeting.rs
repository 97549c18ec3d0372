use greet::names::default_name;

#[test]
fn hello_greets_the_default() {
    assert_eq!(greet::hello(&default_name()), "hi, world");
}
