/** Command-line entry point. */
process.stderr.write('not implemented yet\n');
process.exitCode = 1;
