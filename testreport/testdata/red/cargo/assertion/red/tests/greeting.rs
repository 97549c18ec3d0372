#[test]
fn hello_greets_by_name() {
    assert_eq!(greet::hello("Ada"), "hello, Ada");
}
