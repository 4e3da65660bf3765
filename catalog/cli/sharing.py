"""`catalog share`: who may use a catalog on a PostgreSQL server (docs/sharing.md)."""

from __future__ import annotations

import click

from catalog.cli.common import _open, json_option


@click.group(invoke_without_command=True)
@click.pass_context
def share(ctx):
    """Who may use a catalog on a server: its owner and member roles. Without a command,
    lists them. Each member keeps its own status and ratings, which no one else reads."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(share_members)


@share.command("members")
@json_option
@click.pass_context
def share_members(ctx, as_json):
    """List the catalog's owner and members (you are marked)."""
    from catalog.cli import output
    from catalog.text.terminal import safe

    members = _open(ctx).admin.members()
    if as_json:
        output.print_json({"owner": members.owner, "members": list(members.names), "you": members.you})
        return
    people = [(members.owner, "owner"), *((name, "member") for name in members.names)]
    width = max(len(name) for name, _ in people)
    for name, what in people:
        click.echo(f"{safe(name):<{width}}  {what}{' (you)' if name == members.you else ''}")
    if not members.names:
        click.echo("No members yet; add one with `catalog share add-member ROLE`.", err=True)


@share.command("add-member")
@click.argument("role")
@click.pass_context
def share_add(ctx, role):
    """Let the database role ROLE use this catalog (run as its owner; the role must exist)."""
    from catalog.text.terminal import safe

    added = _open(ctx).admin.add_member(role)
    click.echo(f"{safe(role)} {'is now' if added else 'was already'} a member of this catalog", err=True)


@share.command("remove-member")
@click.argument("role")
@click.pass_context
def share_remove(ctx, role):
    """Take ROLE's access away (run as the owner); its status, ratings and notes stay."""
    from catalog.text.terminal import safe

    removed = _open(ctx).admin.remove_member(role)
    click.echo(f"{safe(role)} {'is no longer' if removed else 'was not'} a member of this catalog", err=True)


COMMANDS = (share,)
