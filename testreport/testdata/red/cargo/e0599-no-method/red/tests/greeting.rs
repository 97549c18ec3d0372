use greet::Greeter;

#[test]
fn shout_greets_loudly() {
    let g = Greeter { greeting: "hi".to_string() };
    assert_eq!(g.shout("Ada"), "HI, ADA");
}
