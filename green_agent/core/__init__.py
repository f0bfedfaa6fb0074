"""The assessment core: the plugin contract, the declaration of results, journal and resume, the plugin
registry and scoring. Imports only the A2A kit."""
