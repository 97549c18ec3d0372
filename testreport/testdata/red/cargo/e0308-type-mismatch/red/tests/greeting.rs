#[test]
fn count_counts_words() {
    let n: usize = greet::count("a b");
    assert_eq!(n, 2);
}
