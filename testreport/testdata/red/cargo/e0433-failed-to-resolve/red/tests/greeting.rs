#[test]
fn hello_greets_the_default() {
    assert_eq!(greet::hello(&greet::names::default_name()), "hi, world");
}
