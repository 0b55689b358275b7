/*
 * mad/port_args.h - the local umad port a program runs on, as its command
 * line names it (-d/--ca CA, -p/--port N, -g/--guid PORTGUID: the same three
 * for nanosm and every tool), and the one parser for the numbers command
 * lines take.  Pure: strings in, a struct or a message out.
 *
 * DOC: a program keeps a zeroed struct port_args ("the first InfiniBand
 * port"), hands each of the three options to port_args_set as getopt (or
 * its own scanner) meets them, and calls port_args_check after the last:
 * -g names a port by itself, so it excludes -d and -p.  Numbers, the port
 * options' and the other options' of nanosm and the umad tools, go through
 * port_args_number: decimal or 0x hex, the whole word (no sign, blank or
 * octal), within the caller's range (nanosm-ping keeps its own scanner for
 * its k/m sizes and durations).  Messages name the option and the value as
 * the user gave them:
 * -p: "abc" is not a number
 * -p: 0 is out of range 1..254
 * -g names the local port: give -g GUID or -d CA [-p PORT], not both
 * Each program keeps its own usage text and prefixes its own name.
 */
#ifndef NANOSM_MAD_PORT_ARGS_H
#define NANOSM_MAD_PORT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define PORT_ARGS_CA_MAX 63    /* bytes in a -d CA name */
#define PORT_ARGS_PORT_MAX 254 /* highest -p port number */

struct port_args {
	char ca[PORT_ARGS_CA_MAX + 1]; /* -d: "" = any CA */
	unsigned port;		       /* -p: 1..254, 0 = the CA's first InfiniBand port */
	uint64_t guid;		       /* -g: 0 = not given */
};

/* The three for getopt_long: prepend PORT_ARGS_OPTSTRING to the optstring
 * and put PORT_ARGS_LONGOPTS first in the option table (expand it where
 * <getopt.h> is included). */
#define PORT_ARGS_OPTSTRING "g:d:p:"
/* clang-format off */
#define PORT_ARGS_LONGOPTS                      \
	{"guid", required_argument, NULL, 'g'}, \
	{"ca", required_argument, NULL, 'd'},   \
	{"port", required_argument, NULL, 'p'}
/* clang-format on */

/* Option letter ('d', 'p' or 'g') with its value val into a.  opt is the
 * option as the user wrote it ("--port"), for the message; NULL means
 * "-<letter>".  0, or -EINVAL with err filled and a unchanged. */
int port_args_set(struct port_args *a, int letter, const char *opt, const char *val, char *err,
		  size_t errlen);

/* After the last option: -g excludes -d/-p.  0, or -EINVAL with err. */
int port_args_check(const struct port_args *a, char *err, size_t errlen);

/* The CA for mad_port_open: NULL when -d was not given.  Borrowed from a. */
const char *port_args_ca(const struct port_args *a);

/* The value of option opt: decimal or 0x hex digits and nothing else, in
 * min..max.  0 with *out set, or -EINVAL with err filled and *out
 * unchanged. */
int port_args_number(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen);

#endif
