pub fn scenario(_a: crate::cli::ScenarioArgs) -> crate::error::Result<()> {
    Ok(())
}
