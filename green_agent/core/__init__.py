"""The assessment core: the plugin contract, the one unit runner every plugin runs on, the declaration
of results, journal and resume, the plugin registry and scoring. Imports only the A2A kit."""
