"""Seating tables through the public API: accounts, a ``libre`` campaign, members, a match.

Everything goes through HTTP like a real client (bearer tokens), so the bench follows the
API's contract rather than the database's layout. Only the 10,000-event log of the
growth figure is written in-process (see ``bench.growth``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx

PASSWORD = "bench password 1234"
API = "/api/v1"


@dataclass(frozen=True)
class Member:
    name: str
    id: int
    token: str
    role: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Table:
    campaign_id: int
    match_id: int
    members: list[Member]  # the GM first
    seq: int = 0
    system: str = "libre"

    @property
    def path(self) -> str:
        return f"{API}/campaigns/{self.campaign_id}/matches/{self.match_id}"

    @property
    def actors(self) -> list[Member]:
        """Who may act: everyone but spectators."""
        return [member for member in self.members if member.role != "spectator"]


class SetupFailed(RuntimeError):
    pass


def _ok(response: httpx.Response, status: int = 200) -> Any:
    if response.status_code != status:
        raise SetupFailed(f"{response.request.method} {response.request.url.path}: "
                          f"{response.status_code} {response.text[:300]}")
    return response.json()


async def register(client: httpx.AsyncClient, name: str, role: str = "gm") -> Member:
    user = _ok(await client.post(f"{API}/auth/register",
                                 json={"username": name, "password": PASSWORD}), 201)
    login = _ok(await client.post(f"{API}/auth/login",
                                  json={"username": name, "password": PASSWORD}))
    return Member(name, user["id"], login["token"], role)


async def create_match(client: httpx.AsyncClient, gm: Member, campaign_id: int,
                       name: str = "Bench") -> tuple[int, int]:
    """A new libre match (no characters); returns its id and seq."""
    match = _ok(await client.post(f"{API}/campaigns/{campaign_id}/matches", headers=gm.headers,
                                  json={"name": name}), 201)
    return match["id"], match["seq"]


async def seat_table(client: httpx.AsyncClient, label: str, *, players: int = 4,
                     spectators: int = 1, system: str = "libre") -> Table:
    """A GM, ``players`` players and ``spectators`` spectators around a new match: free
    play (``libre``), or ``cyborg`` (automated rules: the GM's cyborg Kenji on the board,
    for characteristic tests, ``CYBORG_TEST``)."""
    gm = await register(client, f"{label}gm")
    campaign = _ok(await client.post(f"{API}/campaigns", headers=gm.headers,
                                     json={"name": f"Bench {label}", "system": system}), 201)
    members = [gm]
    for role, count in (("player", players), ("spectator", spectators)):
        if not count:
            continue
        invite = _ok(await client.post(f"{API}/campaigns/{campaign['id']}/invites",
                                       headers=gm.headers,
                                       json={"role": role, "max_uses": count}), 201)
        for index in range(count):
            member = await register(client, f"{label}{role[:2]}{index}", role)
            _ok(await client.post(f"{API}/invites/{invite['token']}/accept",
                                  headers=member.headers))
            members.append(member)
    if system == "cyborg":
        from app.rules.cyborg.profiles import PROFILES

        kenji = _ok(await client.post(f"{API}/campaigns/{campaign['id']}/characters",
                                      headers=gm.headers,
                                      json={"name": "Kenji", "owner_id": None,
                                            "sheet": PROFILES["kenji"].sheet}), 201)
        match = _ok(await client.post(f"{API}/campaigns/{campaign['id']}/matches",
                                      headers=gm.headers, json={
                                          "name": "Labo", "character_ids": [kenji["id"]],
                                          "options": {"width": 40, "height": 30,
                                                      "unit": "sq"}}), 201)
        return Table(campaign["id"], match["id"], members, match["seq"], system)
    match_id, seq = await create_match(client, gm, campaign["id"])
    return Table(campaign["id"], match_id, members, seq)


async def seat_tables(client: httpx.AsyncClient, count: int, prefix: str, *,
                      concurrency: int = 8, automated_every: int = 0, **roles: int
                      ) -> list[Table]:
    """``count`` tables; with ``automated_every=n``, every n-th one plays ``cyborg``."""
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int) -> Table:
        system = "cyborg" if automated_every and index % automated_every == 0 else "libre"
        async with gate:
            return await seat_table(client, f"{prefix}{index:03d}", system=system, **roles)

    return list(await asyncio.gather(*(one(index) for index in range(count))))


ROLL = {"kind": "roll", "expression": "1d20+5", "purpose": "bench"}
# Cyborg Anti-Alien, judged by the rules: a Force test of the GM's cyborg (token t1).
CYBORG_TEST = {"kind": "test", "token": "t1", "characteristic": "force", "malus": 0}


async def act(client: httpx.AsyncClient, table: Table, member: Member,
              action: dict[str, Any] = ROLL) -> int:
    """Post one action (a public free roll by default); returns the seq it reached."""
    response = await client.post(f"{table.path}/actions", headers=member.headers,
                                 json={"action": action, "seq": None})
    return _ok(response)["seq"]
