import sys

from harmony_viz.cli import main

sys.exit(main())
