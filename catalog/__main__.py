from catalog.cli import main

main()
