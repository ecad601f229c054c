-- TPC-C's five transactions as MySQL-family stored procedures, in the order of statements
-- HammerDB's TPROC-C procedures send (src/mysql/mysqloltp.tcl): a loop over the order's lines
-- in New-Order and over the ten districts in Delivery, each procedure its own transaction. The
-- client draws the inputs (NURand items and customers, supply warehouses, quantities) so that
-- every shape runs the same transactions; an error rolls back and is passed on, so deadlocks
-- and lock waits reach the client as with the other shapes. {name} is filled per dataset.
-- routine: neword
CREATE PROCEDURE {neword}(p_w BIGINT, p_d BIGINT, p_cid BIGINT, p_cnt BIGINT, p_local BIGINT, p_items VARCHAR(200), p_supply VARCHAR(200), p_qty VARCHAR(100))
body: BEGIN
  DECLARE v_disc, v_wtax, v_dtax DECIMAL(4,4);
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_oid, v_n, v_item, v_supply, v_qty, v_squant BIGINT;
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_iname VARCHAR(24);
  DECLARE v_idata, v_sdata VARCHAR(50);
  DECLARE v_info CHAR(24);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_wtax
    FROM {customer}, {warehouse} WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_cid;
  SELECT d_next_o_id, d_tax INTO v_oid, v_dtax FROM {district} WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
  UPDATE {district} SET d_next_o_id = v_oid + 1 WHERE d_w_id = p_w AND d_id = p_d;
  INSERT INTO {orders} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (v_oid, p_d, p_w, p_cid, CURRENT_TIMESTAMP, p_cnt, p_local);
  INSERT INTO {new_orders} (no_o_id, no_d_id, no_w_id) VALUES (v_oid, p_d, p_w);
  SET v_n = 1;
  WHILE v_n <= p_cnt DO
    SET v_item = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', v_n), ',', -1) AS SIGNED);
    SET v_supply = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', v_n), ',', -1) AS SIGNED);
    SET v_qty = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', v_n), ',', -1) AS SIGNED);
    SET v_price = NULL;
    SELECT i_price, i_name, i_data INTO v_price, v_iname, v_idata FROM {item} WHERE i_id = v_item;
    IF v_price IS NULL THEN
      -- The unused item: TPC-C's 1% of New-Orders that roll back.
      ROLLBACK;
      SELECT -1;
      LEAVE body;
    END IF;
    SELECT s_quantity, s_data, ELT(p_d, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10)
      INTO v_squant, v_sdata, v_info FROM {stock} WHERE s_i_id = v_item AND s_w_id = v_supply{lock};
    IF v_squant >= v_qty + 10 THEN
      SET v_squant = v_squant - v_qty;
    ELSE
      SET v_squant = v_squant - v_qty + 91;
    END IF;
    UPDATE {stock} SET s_quantity = v_squant, s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (v_supply <> p_w)
      WHERE s_i_id = v_item AND s_w_id = v_supply;
    INSERT INTO {order_line} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_oid, p_d, p_w, v_n, v_item, v_supply, v_qty, v_qty * v_price, v_info);
    SET v_n = v_n + 1;
  END WHILE;
  COMMIT;
  SELECT v_oid;
END
-- routine: payment
CREATE PROCEDURE {payment}(p_w BIGINT, p_d BIGINT, p_cw BIGINT, p_cd BIGINT, p_cid BIGINT, p_byname BIGINT, p_last VARCHAR(16), p_cents BIGINT)
BEGIN
  DECLARE v_amount DECIMAL(12,2) DEFAULT p_cents / 100;
  DECLARE v_cid BIGINT DEFAULT p_cid;
  DECLARE v_n BIGINT;
  DECLARE v_wstreet1, v_wstreet2, v_wcity, v_dstreet1, v_dstreet2, v_dcity, v_cstreet1, v_cstreet2, v_ccity VARCHAR(20);
  DECLARE v_wstate, v_dstate, v_cstate, v_cmiddle, v_credit CHAR(2);
  DECLARE v_wzip, v_dzip, v_czip CHAR(9);
  DECLARE v_wname, v_dname VARCHAR(10);
  DECLARE v_cfirst, v_clast VARCHAR(16);
  DECLARE v_cphone CHAR(16);
  DECLARE v_climit, v_cbalance DECIMAL(12,2);
  DECLARE v_cdisc DECIMAL(4,4);
  DECLARE v_csince DATETIME;
  DECLARE v_data VARCHAR(500);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  UPDATE {warehouse} SET w_ytd = w_ytd + v_amount WHERE w_id = p_w;
  SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name INTO v_wstreet1, v_wstreet2, v_wcity, v_wstate, v_wzip, v_wname
    FROM {warehouse} WHERE w_id = p_w;
  UPDATE {district} SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name INTO v_dstreet1, v_dstreet2, v_dcity, v_dstate, v_dzip, v_dname
    FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  IF p_byname = 1 THEN
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'Payment: no customer of that last name in the district';
    END IF;
    SET v_n = (v_n - 1) DIV 2;
    SELECT c_id INTO v_cid FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last ORDER BY c_first LIMIT v_n, 1;
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since
    INTO v_cfirst, v_cmiddle, v_clast, v_cstreet1, v_cstreet2, v_ccity, v_cstate, v_czip, v_cphone, v_credit, v_climit, v_cdisc, v_cbalance, v_csince
    FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid{lock};
  IF v_credit = 'BC' THEN
    SELECT c_data INTO v_data FROM {customer} WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;
    SET v_data = LEFT(CONCAT(v_cid, ' ', p_cd, ' ', p_cw, ' ', p_d, ' ', p_w, ' ', v_amount, '|', v_data), 500);
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount, c_payment_cnt = c_payment_cnt + 1, c_data = v_data
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;
  ELSE
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount, c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;
  END IF;
  INSERT INTO {history} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (p_cd, p_cw, v_cid, p_d, p_w, CURRENT_TIMESTAMP, v_amount, CONCAT(v_wname, '    ', v_dname));
  COMMIT;
  SELECT v_cid;
END
-- routine: ostat
CREATE PROCEDURE {ostat}(p_w BIGINT, p_d BIGINT, p_cid BIGINT, p_byname BIGINT, p_last VARCHAR(16))
BEGIN
  DECLARE v_cid BIGINT DEFAULT p_cid;
  DECLARE v_n, v_oid, v_carrier BIGINT;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first, v_clast VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_entry DATETIME;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION READ ONLY;
  IF p_byname = 1 THEN
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'Order-Status: no customer of that last name in the district';
    END IF;
    SET v_n = (v_n - 1) DIV 2;
    SELECT c_id INTO v_cid FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last ORDER BY c_first LIMIT v_n, 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_cid;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_oid, v_carrier, v_entry FROM {orders} WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_cid ORDER BY o_id DESC LIMIT 1;
  -- The order's lines go back to the terminal, as with the statements of the other shapes.
  SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM {order_line} WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_oid;
  COMMIT;
END
-- routine: delivery
CREATE PROCEDURE {delivery}(p_w BIGINT, p_carrier BIGINT)
BEGIN
  DECLARE v_d BIGINT DEFAULT 1;
  DECLARE v_done BIGINT DEFAULT 0;
  DECLARE v_oid, v_cid BIGINT;
  DECLARE v_total DECIMAL(12,2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  WHILE v_d <= 10 DO
    SET v_oid = NULL;
    SELECT no_o_id INTO v_oid FROM {new_orders} WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id ASC LIMIT 1{lock};
    IF v_oid IS NOT NULL THEN
      DELETE FROM {new_orders} WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_oid;
      -- Another Delivery may have taken this order first.
      IF ROW_COUNT() > 0 THEN
        SELECT o_c_id INTO v_cid FROM {orders} WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_oid;
        UPDATE {orders} SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_oid;
        UPDATE {order_line} SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_oid;
        SELECT SUM(ol_amount) INTO v_total FROM {order_line} WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_oid;
        UPDATE {customer} SET c_balance = c_balance + v_total, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_cid;
        SET v_done = v_done + 1;
      END IF;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT v_done;
END
-- routine: slev
CREATE PROCEDURE {slev}(p_w BIGINT, p_d BIGINT, p_threshold BIGINT)
BEGIN
  DECLARE v_next, v_count BIGINT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION READ ONLY;
  SELECT d_next_o_id INTO v_next FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM {order_line}, {stock}
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  COMMIT;
  SELECT v_count;
END
