/* --help and --version. */
#ifndef SMARTCP_HELP_H
#define SMARTCP_HELP_H

/* The --help text, on standard output. */
void sc_help_usage(void);
/* The --version text, on standard output. */
void sc_help_version(void);

#endif
