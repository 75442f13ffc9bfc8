-- arena: eggs
-- EggHunterLua: an Easter Egg Hunt bot that maps the board as it goes.
--
-- The player has no coordinates, so it dead-reckons: `pos` is its position relative to
-- its start cell and `map` holds every cell it has seen ("#" wall or outside, "o" egg,
-- " " empty), keyed "x,y". Each turn it first checks whether its last move happened (a
-- fight or a wall may have kept it in place) by comparing the new view with the map at
-- both candidate cells (walls never change; an egg never appears where the map says
-- empty); if neither fits, the map is forgotten and rebuilt from here.
--
-- Then a breadth-first search over known free cells (8 neighbours; a cell it just
-- bounced off is blocked for 1-3 turns, since two bots insisting on one cell would tie
-- for ever; other players are no obstacles: players may swap) picks: the nearest known
-- egg that no visible player is closer to (action N picks it up; A would destroy it, C
-- is sent back); else the nearest unknown cell, kept as the target until it is seen (no
-- dithering); else it waits (while a cell is blocked) or takes the least visited
-- neighbour.
-- Moving next to another player onto an empty cell it uses A (beats N), else N.
--
-- Globals persist for the whole game (one player per entry), so the map lives in them.

local STEPS = { { -1, -1 }, { 0, -1 }, { 1, -1 }, { 1, 0 }, { 1, 1 }, { 0, 1 }, { -1, 1 }, { -1, 0 } }

local px, py = 0, 0
local map = {}
local visits = {}
local last_step = nil
local target = nil
local avoid = {} -- cells bounced off: key -> the turn until which they are blocked

local function key(x, y)
    return x * 4096 + y
end

local function cell(view, dx, dy)
    if dx < -2 or dx > 2 or dy < -2 or dy > 2 then
        return "X"
    end
    return string.sub(view[dy + 3], dx + 3, dx + 3)
end

local function blocked(c)
    return c == "#" or c == "X"
end

local function mismatches(view, x, y)
    local bad = 0
    for dy = -2, 2 do
        for dx = -2, 2 do
            local known = map[key(x + dx, y + dy)]
            if known then
                local seen = cell(view, dx, dy)
                if blocked(seen) ~= (known == "#") or (seen == "o" and known == " ") then
                    bad = bad + 1
                end
            end
        end
    end
    return bad
end

local function observe(view, turn)
    if last_step and (last_step[1] ~= 0 or last_step[2] ~= 0) then
        local mx, my = px + last_step[1], py + last_step[2]
        local m, s = mismatches(view, mx, my), mismatches(view, px, py)
        if m <= s then
            px, py = mx, my
        else
            avoid[key(mx, my)] = turn + 1 + random(3)
        end
        if math.min(m, s) > 0 then
            map, visits, target = {}, {}, nil
        end
    end
    for dy = -2, 2 do
        for dx = -2, 2 do
            local seen = cell(view, dx, dy)
            local c = " "
            if blocked(seen) then
                c = "#"
            elseif seen == "o" then
                c = "o"
            end
            map[key(px + dx, py + dy)] = c
        end
    end
    local k = key(px, py)
    visits[k] = (visits[k] or 0) + 1
end

local function plan(view, turn)
    local list = {}
    for dy = -2, 2 do
        for dx = -2, 2 do
            if (dx ~= 0 or dy ~= 0) and cell(view, dx, dy) == "*" then
                list[#list + 1] = { px + dx, py + dy }
            end
        end
    end
    -- Other players are no obstacles (players may swap; a step onto one succeeds
    -- whenever it moves); a cell bounced off is, for a few turns.
    local blocked_now, waiting = {}, false
    for k, till in pairs(avoid) do
        if till > turn then
            blocked_now[k], waiting = true, true
        else
            avoid[k] = nil
        end
    end
    local offset = random(8)
    -- Breadth-first search: dist and first step of each reached cell.
    local dist, first = {}, {}
    local qx, qy = { px }, { py }
    local head = 1
    dist[key(px, py)] = 0
    local best_egg, best_egg_d, contested_egg = nil, nil, nil
    local frontier = {}
    while head <= #qx do
        local cx, cy = qx[head], qy[head]
        head = head + 1
        local ck = key(cx, cy)
        local d = dist[ck]
        for i = 0, 7 do
            local s = STEPS[(i + offset) % 8 + 1]
            local nx, ny = cx + s[1], cy + s[2]
            local nk = key(nx, ny)
            if dist[nk] == nil and not blocked_now[nk] then
                local via = first[ck] or s
                local known = map[nk]
                if known == nil then
                    dist[nk] = d + 1
                    frontier[#frontier + 1] = { nk, via }
                elseif known ~= "#" then
                    dist[nk] = d + 1
                    first[nk] = via
                    qx[#qx + 1], qy[#qy + 1] = nx, ny
                    if known == "o" then
                        local contested = false
                        for _, o in ipairs(list) do
                            if math.max(math.abs(o[1] - nx), math.abs(o[2] - ny)) < d + 1 then
                                contested = true
                            end
                        end
                        if contested then
                            contested_egg = contested_egg or via
                        elseif best_egg == nil then
                            best_egg, best_egg_d = via, d + 1
                        end
                    end
                end
            end
        end
    end
    local egg = best_egg or contested_egg
    if egg then
        target = nil
        return egg
    end
    if target then
        for _, f in ipairs(frontier) do
            if f[1] == target then
                return f[2]
            end
        end
    end
    if #frontier > 0 then
        target = frontier[1][1]
        return frontier[1][2]
    end
    target = nil
    if waiting then
        return { 0, 0 }
    end
    local best, best_n = { 0, 0 }, math.huge
    for i = 0, 7 do
        local s = STEPS[(i + offset) % 8 + 1]
        local nk = key(px + s[1], py + s[2])
        local known = map[nk]
        if known and known ~= "#" and (visits[nk] or 0) < best_n then
            best, best_n = s, visits[nk] or 0
        end
    end
    return best
end

local function direction(dx, dy)
    for i, s in ipairs(STEPS) do
        if s[1] == dx and s[2] == dy then
            return i
        end
    end
    return 9
end

function do_turn(ctx)
    local view = ctx.view
    observe(view, ctx.turn)
    local s = plan(view, ctx.turn)
    local dx, dy = s[1], s[2]
    local action = "N"
    if cell(view, dx, dy) ~= "o" then
        for oy = -1, 1 do
            for ox = -1, 1 do
                if (ox ~= -dx or oy ~= -dy) and cell(view, dx + ox, dy + oy) == "*" then
                    action = "A"
                end
            end
        end
    end
    last_step = { dx, dy }
    return { dir = direction(dx, dy), action = action, memory = "" }
end
