fn main() {
    std::process::exit(fairbench::main_entry());
}
