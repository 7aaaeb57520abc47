/// Placeholder until the module's issue lands; see README.
