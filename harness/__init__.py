"""The suite checking itself: deliberately broken adapters, real third-party targets,
probe catalogues and the other self-checks that keep the judge honest."""
