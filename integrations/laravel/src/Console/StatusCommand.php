<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use Illuminate\Console\Command;

/**
 * php artisan distlock:status {name} [--store=NAME]
 * Held or free, remaining lease, number of waiters. The owner token is a
 * bearer credential for release: only its first 4 characters are shown.
 */
class StatusCommand extends Command
{
    use ResolvesClient;

    protected $signature = 'distlock:status {name : lock name (without prefix)}
        {--store= : a distlock cache store; its lock names are those of Cache::store(NAME)->lock()}';

    protected $description = 'Show whether a distlock lock is held, its remaining lease and its waiters';

    public function handle(): int
    {
        return $this->reporting(fn (): int => $this->showStatus());
    }

    private function showStatus(): int
    {
        $client = $this->lockClient();
        $name = (string) $this->argument('name');
        $status = $client->status($name);
        if (!$status['locked']) {
            $this->line("$name: free, {$status['waiters']} waiter(s)");
            return 0;
        }
        $owner = $client->owner($name);
        $hint = $owner === null ? '' : ', owner ' . substr($owner, 0, 4) . '…';
        $this->line(sprintf('%s: held, %.3f s left, %d waiter(s)%s', $name, $status['ttl'], $status['waiters'], $hint));
        return 0;
    }
}
