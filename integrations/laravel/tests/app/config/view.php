<?php
return ['paths' => [], 'compiled' => dirname(__DIR__) . '/storage/framework/views'];
