-- TPC-C's five transactions as PL/pgSQL functions, in the shape of HammerDB's TPROC-C routines
-- for PostgreSQL (src/postgresql/pgoltp.tcl): New-Order and Delivery set-based over arrays
-- (UNNEST), the others statement by statement. A function runs as the one statement of its own
-- transaction: an error rolls it back whole. The client draws the inputs (NURand items and
-- customers, supply warehouses, quantities) so that every shape runs the same transactions.
-- Parameters are BIGINT: the client sends integers as int8. {name} is filled per dataset.
-- routine: neword
CREATE FUNCTION {neword}(p_w BIGINT, p_d BIGINT, p_cid BIGINT, p_cnt BIGINT, p_local BIGINT, p_items TEXT, p_supply TEXT, p_qty TEXT) RETURNS BIGINT AS $$
DECLARE
  v_items BIGINT[] := string_to_array(p_items, ',')::BIGINT[];
  v_supply BIGINT[] := string_to_array(p_supply, ',')::BIGINT[];
  v_qty BIGINT[] := string_to_array(p_qty, ',')::BIGINT[];
  v_price NUMERIC[];
  v_disc NUMERIC;
  v_wtax NUMERIC;
  v_dtax NUMERIC;
  v_last TEXT;
  v_credit TEXT;
  v_oid BIGINT;
BEGIN
  SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_wtax
    FROM {customer}, {warehouse} WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_cid;
  SELECT array_agg(i_price ORDER BY l.n) INTO v_price FROM unnest(v_items) WITH ORDINALITY AS l(id, n) LEFT JOIN {item} ON i_id = l.id;
  IF array_position(v_price, NULL) IS NOT NULL THEN
    -- The unused item: TPC-C's 1% of New-Orders that roll back. Found before anything is
    -- written, as a function cannot end its own transaction.
    RETURN -1;
  END IF;
  UPDATE {district} SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d RETURNING d_next_o_id - 1, d_tax INTO v_oid, v_dtax;
  INSERT INTO {orders} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (v_oid, p_d, p_w, p_cid, CURRENT_TIMESTAMP, p_cnt, p_local);
  INSERT INTO {new_orders} (no_o_id, no_d_id, no_w_id) VALUES (v_oid, p_d, p_w);
  WITH l AS (
    SELECT * FROM unnest(v_items, v_supply, v_qty, v_price) WITH ORDINALITY AS l(item, supply, qty, price, n)
  ), up AS (
    UPDATE {stock} s SET
      s_quantity = CASE WHEN s.s_quantity >= l.qty + 10 THEN s.s_quantity - l.qty ELSE s.s_quantity - l.qty + 91 END,
      s_ytd = s.s_ytd + l.qty, s_order_cnt = s.s_order_cnt + 1, s_remote_cnt = s.s_remote_cnt + (l.supply <> p_w)::INT
    FROM l WHERE s.s_i_id = l.item AND s.s_w_id = l.supply
    RETURNING l.n, l.item, l.supply, l.qty, l.price,
      (ARRAY[s.s_dist_01, s.s_dist_02, s.s_dist_03, s.s_dist_04, s.s_dist_05, s.s_dist_06, s.s_dist_07, s.s_dist_08, s.s_dist_09, s.s_dist_10])[p_d::INT] AS info
  )
  INSERT INTO {order_line} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
    SELECT v_oid, p_d, p_w, up.n, up.item, up.supply, up.qty, up.qty * up.price, up.info FROM up;
  RETURN v_oid;
END $$ LANGUAGE plpgsql
-- routine: payment
CREATE FUNCTION {payment}(p_w BIGINT, p_d BIGINT, p_cw BIGINT, p_cd BIGINT, p_cid BIGINT, p_byname BIGINT, p_last TEXT, p_cents BIGINT) RETURNS BIGINT AS $$
DECLARE
  v_amount NUMERIC := p_cents::NUMERIC / 100;
  v_cid BIGINT := p_cid;
  v_n BIGINT;
  v_w RECORD;
  v_dist RECORD;
  v_c RECORD;
BEGIN
  UPDATE {warehouse} SET w_ytd = w_ytd + v_amount WHERE w_id = p_w
    RETURNING w_street_1, w_street_2, w_city, w_state, w_zip, w_name INTO v_w;
  UPDATE {district} SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_street_1, d_street_2, d_city, d_state, d_zip, d_name INTO v_dist;
  IF p_byname = 1 THEN
    SELECT count(*) INTO v_n FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'Payment: no customer named % in warehouse % district %', p_last, p_cw, p_cd;
    END IF;
    SELECT c_id INTO v_cid FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last ORDER BY c_first OFFSET (v_n - 1) / 2 LIMIT 1;
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since INTO v_c
    FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid{lock};
  IF v_c.c_credit = 'BC' THEN
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount, c_payment_cnt = c_payment_cnt + 1,
      c_data = left(v_cid || ' ' || p_cd || ' ' || p_cw || ' ' || p_d || ' ' || p_w || ' ' || to_char(v_amount, 'FM9999999990.00') || '|' || c_data, 500)
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;
  ELSE
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount, c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;
  END IF;
  INSERT INTO {history} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (p_cd, p_cw, v_cid, p_d, p_w, CURRENT_TIMESTAMP, v_amount, v_w.w_name || '    ' || v_dist.d_name);
  RETURN v_cid;
END $$ LANGUAGE plpgsql
-- routine: ostat
CREATE FUNCTION {ostat}(p_w BIGINT, p_d BIGINT, p_cid BIGINT, p_byname BIGINT, p_last TEXT)
  RETURNS TABLE(line_item BIGINT, line_supply BIGINT, line_quantity BIGINT, line_amount NUMERIC, line_delivered TIMESTAMP) AS $$
DECLARE
  v_cid BIGINT := p_cid;
  v_n BIGINT;
  v_c RECORD;
  v_oid BIGINT;
BEGIN
  IF p_byname = 1 THEN
    SELECT count(*) INTO v_n FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'Order-Status: no customer named % in warehouse % district %', p_last, p_w, p_d;
    END IF;
    SELECT c_id INTO v_cid FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last ORDER BY c_first OFFSET (v_n - 1) / 2 LIMIT 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_c FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_cid;
  SELECT o_id INTO v_oid FROM {orders} WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_cid ORDER BY o_id DESC LIMIT 1;
  -- The order's lines go back to the terminal, as with the statements of the other shapes.
  RETURN QUERY SELECT ol_i_id::BIGINT, ol_supply_w_id::BIGINT, ol_quantity::BIGINT, ol_amount::NUMERIC, ol_delivery_d::TIMESTAMP
    FROM {order_line} WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_oid;
END $$ LANGUAGE plpgsql
-- routine: delivery
CREATE FUNCTION {delivery}(p_w BIGINT, p_carrier BIGINT) RETURNS BIGINT AS $$
DECLARE
  v_ds BIGINT[];
  v_os BIGINT[];
BEGIN
  -- Each district's oldest new order, taken once: one that another Delivery deleted first is
  -- left out.
  WITH taken AS (
    DELETE FROM {new_orders} n USING generate_series(1, 10) AS ds(d)
    WHERE n.no_w_id = p_w AND n.no_d_id = ds.d
      AND n.no_o_id = (SELECT min(x.no_o_id) FROM {new_orders} x WHERE x.no_w_id = p_w AND x.no_d_id = ds.d)
    RETURNING n.no_d_id, n.no_o_id
  )
  SELECT array_agg(no_d_id), array_agg(no_o_id) INTO v_ds, v_os FROM taken;
  IF v_ds IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE {orders} SET o_carrier_id = p_carrier FROM unnest(v_ds, v_os) AS k(d, o) WHERE o_w_id = p_w AND o_d_id = k.d AND o_id = k.o;
  WITH lines AS (
    UPDATE {order_line} SET ol_delivery_d = CURRENT_TIMESTAMP FROM unnest(v_ds, v_os) AS k(d, o)
    WHERE ol_w_id = p_w AND ol_d_id = k.d AND ol_o_id = k.o
    RETURNING ol_d_id, ol_o_id, ol_amount
  ), sums AS (
    SELECT ol_d_id, ol_o_id, sum(ol_amount) AS amount FROM lines GROUP BY ol_d_id, ol_o_id
  )
  UPDATE {customer} SET c_balance = c_balance + sums.amount, c_delivery_cnt = c_delivery_cnt + 1
    FROM sums JOIN {orders} ON o_w_id = p_w AND o_d_id = sums.ol_d_id AND o_id = sums.ol_o_id
    WHERE c_w_id = p_w AND c_d_id = sums.ol_d_id AND c_id = o_c_id;
  RETURN cardinality(v_ds);
END $$ LANGUAGE plpgsql
-- routine: slev
CREATE FUNCTION {slev}(p_w BIGINT, p_d BIGINT, p_threshold BIGINT) RETURNS BIGINT AS $$
DECLARE
  v_next BIGINT;
  v_count BIGINT;
BEGIN
  SELECT d_next_o_id INTO v_next FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_count FROM {order_line}, {stock}
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  RETURN v_count;
END $$ LANGUAGE plpgsql
