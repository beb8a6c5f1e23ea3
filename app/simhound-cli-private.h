/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What simhound-cli's commands share: the exit codes, the state a signal
 * reaches, the store option and the helpers that print and read inputs.
 * One file a command (simhound-cli-COMMAND.c); simhound-cli.c holds main()
 * and these.
 */
#pragma once

#include <signal.h>
#include <stdio.h>
#include <glib.h>

#include "sim-check.h"
#include "sim-document.h"
#include "sim-export.h"

enum {
  EXIT_OK = 0,
  EXIT_USAGE = 1,
  EXIT_ERROR = 2,
  EXIT_INTERRUPTED = 3,
};

extern volatile sig_atomic_t cli_interrupted;
extern GCancellable         *cli_cancellable;
extern char                 *cli_store_path;
extern volatile sig_atomic_t cli_exit_on_signal;
extern char                 *cli_partial_pdf;
extern SimPaper              cli_paper;
extern GOptionEntry          cli_store_entries[];

void        cli_poll_interrupt  (void);
int         cli_fail            (GError          *error);
int         cli_usage_error     (GOptionContext  *context,
                                 const char      *message);
char       *cli_for_terminal    (const char      *text);
const char *cli_resolve_store   (void);
/* Whether there is a local store to read at the store location; else says
 * why (none there yet, or a corpus server) and FALSE. */
gboolean    cli_store_exists    (void);
/* The snapshot of the corpus at the store (a local store or a server) for
 * checks; NULL, the failure said, when it cannot be opened. */
SimCorpusSnapshot *cli_open_snapshot (void);
gboolean    cli_parse_paper     (const char      *name,
                                 const char      *value,
                                 gpointer         data,
                                 GError         **error);
char       *cli_one_line        (const char      *text,
                                 guint            max_chars);
gboolean    cli_parse_mode      (const char      *option_name,
                                 const char      *value,
                                 gpointer         data,
                                 GError         **error);
char       *cli_load_input      (const char       *name,
                                 SimFormat        *format,
                                 gsize            *len,
                                 SimDocumentNotes *out_notes,
                                 GError          **error);
void        cli_add_hidden_text (SimReport              *report,
                                 const SimDocumentNotes *notes);

int cli_corpus_command  (int argc, char **argv);
int cli_check_command   (int argc, char **argv);
int cli_compare_command (int argc, char **argv);
int cli_text_command    (int argc, char **argv);
int cli_cross_command   (int argc, char **argv);
int cli_server_command  (int argc, char **argv);
