<?php
declare(strict_types=1);

namespace Nemesis;

/**
 * The protected resource: a hash per lock name on a redis-server of its own
 * (never faulted), reached directly (never through the proxy). Every access
 * goes through one Lua script, which
 *  - checks the fencing token when there is one: accepted when it is higher
 *    than the last accepted token of that name, or equal to it from the same
 *    grant (its read, then its write); otherwise the access is refused as
 *    stale and counted (a token reused by another grant, as after a failover
 *    that lost the counter's INCR, is refused too);
 *  - gives every accepted access a sequence number (the checker verifies
 *    that accepted tokens never go down along it);
 *  - detects lost updates: a write carries the value its grant read; when the
 *    value has changed since, someone else wrote in between, and the write is
 *    accepted but counted as a lost update.
 * Without a token (the peers, Redlock) only the lost-update check applies.
 */
final class Resource
{
    private const SCRIPT = <<<'LUA'
local h = KEYS[1]
local tok = ARGV[2]
if tok ~= '' then
  local t = tonumber(tok)
  local last = tonumber(redis.call('HGET', h, 'last') or '-1')
  local grant = redis.call('HGET', h, 'grant') or ''
  if t < last or (t == last and grant ~= ARGV[3]) then
    redis.call('HINCRBY', h, 'rejected', 1)
    return {'stale', tostring(last), 0}
  end
  redis.call('HSET', h, 'last', tok, 'grant', ARGV[3])
end
local seq = redis.call('HINCRBY', h, 'seq', 1)
local cur = redis.call('HGET', h, 'value') or '0'
if ARGV[1] == 'read' then
  return {'ok', cur, seq}
end
redis.call('HSET', h, 'value', ARGV[5])
redis.call('HINCRBY', h, 'accepted', 1)
if cur ~= ARGV[4] then
  redis.call('HINCRBY', h, 'lost', 1)
  return {'lost', cur, seq}
end
return {'ok', cur, seq}
LUA;

    private \Redis $r;
    private string $sha;

    public function __construct(private int $port)
    {
        $this->connect();
    }

    private function connect(): void
    {
        $this->r = new \Redis();
        $this->r->connect('127.0.0.1', $this->port, 2.0);
        $this->r->setOption(\Redis::OPT_READ_TIMEOUT, 10.0);
        $this->sha = (string) $this->r->script('load', self::SCRIPT);
    }

    /** @return array{0:string,1:string,2:int} [ok|stale|lost, value seen (or last token when stale), sequence] */
    public function access(string $name, string $op, ?int $fence, string $grant, string $expected = '', string $new = ''): array
    {
        $args = ["res:$name", $op, $fence === null ? '' : (string) $fence, $grant, $expected, $new];
        try {
            $res = $this->r->evalSha($this->sha, $args, 1);
        } catch (\RedisException $e) {
            $this->connect();   // the resource is never faulted; one more try on a fresh connection
            $res = $this->r->evalSha($this->sha, $args, 1);
        }
        if (!is_array($res)) {
            throw new \RuntimeException('resource: ' . (string) $this->r->getLastError());
        }
        return [(string) $res[0], (string) $res[1], (int) $res[2]];
    }

    /** @return array<string, array<string,string>> name => the resource's counters */
    public static function totals(int $port, array $names): array
    {
        $r = new \Redis();
        $r->connect('127.0.0.1', $port, 2.0);
        $out = [];
        foreach ($names as $n) {
            $out[$n] = $r->hGetAll("res:$n") ?: [];
        }
        return $out;
    }
}
