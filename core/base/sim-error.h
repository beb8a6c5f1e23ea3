/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one error domain of the core library. Each code is a case a caller
 * handles differently; cancellation and missing files reuse G_IO_ERROR.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_ERROR (sim_error_quark ())

typedef enum {
  SIM_ERROR_NOT_TEXT,         /* binary or otherwise not a text file */
  SIM_ERROR_BAD_ENCODING,     /* text we cannot decode at all */
  SIM_ERROR_EMPTY,            /* nothing to check or index */
  SIM_ERROR_STORE_CORRUPT,    /* the store file is damaged or not a store */
  SIM_ERROR_STORE_FULL,       /* the disk (or the store's size limit) is full */
  SIM_ERROR_STORE_TOO_NEW,    /* written by a newer Simhound */
  SIM_ERROR_STORE,            /* any other store failure */
  SIM_ERROR_INVALID_ARGUMENT, /* an option out of range */
  SIM_ERROR_SERVER,           /* the corpus server cannot be reached, or the connection was lost */
  SIM_ERROR_NOT_ALLOWED,      /* the account may not do this (a reader adding documents) */
} SimErrorCode;

GQuark sim_error_quark (void);

G_END_DECLS
