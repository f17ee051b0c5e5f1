"""The toy wire's case pack: the case files beside this module and their features."""
