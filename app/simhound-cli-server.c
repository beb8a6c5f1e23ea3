/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli server: set up and inspect a school's corpus server
 * (sim-server.h). The URI is any libpq connection string; the password
 * comes the libpq ways (~/.pgpass, PGPASSWORD, a service file).
 */
#include "config.h"

#include <glib/gi18n.h>

#include "simhound-cli-private.h"
#include "sim-server.h"

static int
usage (void)
{
  g_printerr ("%s", _("Usage: simhound-cli server init|status|upgrade|compact URI\n"
                      "       simhound-cli server init URI --shard URI --shard URI…\n"
                      "       simhound-cli server init URI --citus\n"
                      "       simhound-cli server collection NAME --students-read on|off URI\n"
                      "  init     install the schema and the roles simhound_writer, simhound_reader,\n"
                      "           simhound_student (again: changes nothing); with --shard, the lookup\n"
                      "           table's partitions on those servers (postgres_fdw), before any add;\n"
                      "           with --citus, the tables distributed by Citus (on its coordinator)\n"
                      "  status   schema version, documents, text and table sizes, this account's role\n"
                      "  upgrade  move an older schema on to this Simhound's\n"
                      "  compact  merge the lookup table's runs into one: faster checks (a quiet hour's job)\n"
                      "  collection  whether student accounts may read a collection's texts\n"));
  return EXIT_USAGE;
}

static void
print_status (SimServer             *server,
              const SimServerStatus *status)
{
  g_autofree char *text = g_format_size (status->text_bytes);
  gint64 total = 0;

  g_print (_("Server: %s\n"), sim_server_get_name (server));
  g_print (_("Schema version: %u\n"), status->version);
  g_print (_("This account: %s\n"), status->role);
  {
    g_autofree char *n = g_strdup_printf ("%" G_GINT64_FORMAT, status->n_documents);

    g_print (_("Documents: %s\n"), n);
  }
  g_print (_("Text: %s\n"), text);
  for (guint i = 0; i < status->relations->len; i++)
    total += g_array_index (status->relations, SimServerRelation, i).table_bytes +
             g_array_index (status->relations, SimServerRelation, i).index_bytes;
  {
    g_autofree char *size = g_format_size (total);

    g_print (_("Tables and indexes: %s\n"), size);
  }
  for (guint i = 0; i < status->relations->len; i++)
    {
      const SimServerRelation *r = &g_array_index (status->relations, SimServerRelation, i);
      g_autofree char *table = g_format_size (r->table_bytes);
      g_autofree char *index = g_format_size (r->index_bytes);

      g_print (_("  %-22s %10s, indexes %s\n"), r->name, table, index);
    }
}

int
cli_server_command (int    argc,
                    char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimServer) server = NULL;

  if (argc == 6 && g_str_equal (argv[1], "collection") && g_str_equal (argv[3], "--students-read") &&
      (g_str_equal (argv[4], "on") || g_str_equal (argv[4], "off")))
    {
      if ((server = sim_server_connect (argv[5], &error)) == NULL ||
          !sim_server_set_students_read (server, argv[2], g_str_equal (argv[4], "on"), &error))
        return cli_fail (error);
      g_print (g_str_equal (argv[4], "on") ? _("%s: students may read the texts of the collection “%s”\n")
                                           : _("%s: students may not read the texts of the collection “%s”\n"),
               sim_server_get_name (server), argv[2]);
      return EXIT_OK;
    }
  if (argc == 4 && g_str_equal (argv[1], "init") && g_str_equal (argv[3], "--citus"))
    {
      if ((server = sim_server_connect (argv[2], &error)) == NULL || !sim_server_init (server, &error) ||
          !sim_server_distribute (server, &error))
        return cli_fail (error);
      g_print (_("%s: schema version %u, its tables distributed by Citus\n"), sim_server_get_name (server),
               SIM_SERVER_SCHEMA_VERSION);
      return EXIT_OK;
    }
  if (argc >= 5 && g_str_equal (argv[1], "init"))
    {
      /* init URI --shard URI --shard URI… */
      g_autoptr(GPtrArray) shards = g_ptr_array_new ();

      for (int i = 3; i < argc; i += 2)
        {
          if (i + 1 >= argc || !g_str_equal (argv[i], "--shard"))
            return usage ();
          g_ptr_array_add (shards, argv[i + 1]);
        }
      g_ptr_array_add (shards, NULL);
      if ((server = sim_server_connect (argv[2], &error)) == NULL || !sim_server_init (server, &error) ||
          !sim_server_shard (server, (const char *const *) shards->pdata, &error))
        return cli_fail (error);
      g_print (ngettext ("%s: schema version %u, the lookup table on %u shard server (postgres_fdw)\n",
                         "%s: schema version %u, the lookup table on %u shard servers (postgres_fdw)\n",
                         shards->len - 1),
               sim_server_get_name (server), SIM_SERVER_SCHEMA_VERSION, shards->len - 1);
      return EXIT_OK;
    }
  if (argc != 3 || !(g_str_equal (argv[1], "init") || g_str_equal (argv[1], "status") ||
                     g_str_equal (argv[1], "upgrade") || g_str_equal (argv[1], "compact")))
    return usage ();
  if ((server = sim_server_connect (argv[2], &error)) == NULL)
    return cli_fail (error);
  if (g_str_equal (argv[1], "compact"))
    {
      if (!sim_server_compact (server, &error))
        return cli_fail (error);
      g_print (_("%s: the lookup table is one run\n"), sim_server_get_name (server));
      return EXIT_OK;
    }
  if (g_str_equal (argv[1], "init") || g_str_equal (argv[1], "upgrade"))
    {
      const gboolean init = g_str_equal (argv[1], "init");

      guint n_indexed = 0;

      if (!(init ? sim_server_init (server, &error) : sim_server_upgrade (server, &error)))
        return cli_fail (error);
      /* Documents from before the lookup table (schema version 1) go into it. */
      if (!init && !sim_server_index_documents (server, &n_indexed, &error))
        return cli_fail (error);
      if (n_indexed > 0)
        g_print (ngettext ("%s: %u document put into the lookup table\n",
                           "%s: %u documents put into the lookup table\n", n_indexed),
                 sim_server_get_name (server), n_indexed);
      g_print (_("%s: schema version %u, roles simhound_writer, simhound_reader, simhound_student\n"),
               sim_server_get_name (server), SIM_SERVER_SCHEMA_VERSION);
      return EXIT_OK;
    }
  {
    g_autoptr(SimServerStatus) status = sim_server_get_status (server, &error);

    if (status == NULL)
      return cli_fail (error);
    print_status (server, status);
  }
  return EXIT_OK;
}
