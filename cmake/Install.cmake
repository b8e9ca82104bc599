# A real install (issue 12): install rules, desktop integration, CPack.
