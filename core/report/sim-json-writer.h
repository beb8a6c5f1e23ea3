/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * JSON written as it is made, byte for byte as json-glib's generator
 * (1.6) writes it: a JsonBuilder made a node, a hash table and slices for
 * every member, and the generator walked them again, a tenth of checking
 * a 1 MB article. sim-report-json.c writes every JSON the program gives
 * with it; tests/core/test-report-view.c holds it to json-glib's bytes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GString  *out;
  gboolean  pretty;
  guint     depth;    /* containers open */
  guint64   objects;  /* bit d: the container at depth d is an object */
  gboolean  empty;    /* the innermost container holds nothing yet */
  gboolean  named;    /* a member's name is written: its value follows */
} SimJsonWriter;

/* On one line unless @pretty (json-glib's pretty layout). */
SimJsonWriter sim_json_writer_new     (gboolean       pretty);
/* The text written. (transfer full) */
char         *sim_json_writer_finish  (SimJsonWriter *w);
/* An object ({) or an array ([), as a value or a member's value; and its end. */
void          sim_json_begin          (SimJsonWriter *w,
                                       gboolean       object);
void          sim_json_end            (SimJsonWriter *w);
/* A member's name: its value follows. */
void          sim_json_name           (SimJsonWriter *w,
                                       const char    *member);
void          sim_json_int            (SimJsonWriter *w,
                                       gint64         value);
/* One member of the object being written. */
void          sim_json_member_int     (SimJsonWriter *w,
                                       const char    *member,
                                       gint64         value);
void          sim_json_member_double  (SimJsonWriter *w,
                                       const char    *member,
                                       double         value);
void          sim_json_member_string  (SimJsonWriter *w,
                                       const char    *member,
                                       const char    *value);
void          sim_json_member_boolean (SimJsonWriter *w,
                                       const char    *member,
                                       gboolean       value);

G_END_DECLS
